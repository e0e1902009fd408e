import sys

from horizon.cli import main

sys.exit(main())
