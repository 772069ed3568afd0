"""The testbed task pack: one JSON file per task, and the params functions that ground them in a world."""
