"""Run a command and print its peak resident memory in MB (ru_maxrss of the child)."""

import resource
import subprocess
import sys

code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
if code != 0:
    sys.exit(code)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
