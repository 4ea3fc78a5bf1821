"""Data shipped inside the wheel as ``grpo_desktop.resources`` (problems, lessons, icons)."""
