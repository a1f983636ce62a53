"""The real applications group: each test starts the application it drives (installed by
`make apps`), on a loopback port of its own, with seeded data, and stops it after."""
