"""The Training workspace: the toy run, its configuration, snapshot and the learning frontier."""
