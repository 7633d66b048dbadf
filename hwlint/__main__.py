import sys

from .cli.check import main

sys.exit(main())
