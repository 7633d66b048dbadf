import sys

from .cli.check import console

sys.exit(console())
