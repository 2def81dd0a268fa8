from thoughtforge.cli import main

main()
