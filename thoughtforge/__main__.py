"""`python -m thoughtforge`: the same command line as the `thoughtforge` script."""

from thoughtforge.cli import main

main()
