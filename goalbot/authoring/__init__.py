"""`goalbot tune`: the authoring roles' instructions, tuned offline by GEPA on what the store
recorded (seed 002 §5.6). Only `programs`, `engine` and `tuning` import dspy, and only `goalbot
tune` imports them: dspy and gepa are an optional extra (`pip install goalbot[tune]`)."""
