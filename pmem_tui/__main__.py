from pmem_tui.cli import main

raise SystemExit(main())
