from cast.main import main

main()
