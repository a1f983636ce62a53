from goalbot.cli import main

raise SystemExit(main())
