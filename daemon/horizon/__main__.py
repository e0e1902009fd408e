import sys

from horizon.cli.main import main

sys.exit(main())
