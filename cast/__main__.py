from cast.cli import main

main()
