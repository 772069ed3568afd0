"""The synthesised task pack: one JSON file per task, its answer key recorded in a sandbox world."""
