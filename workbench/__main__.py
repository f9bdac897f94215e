from workbench.cli import console_main

console_main()
