from goalbot.scripted.server import main

raise SystemExit(main())
