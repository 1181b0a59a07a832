from wheelcheck import main

main()
