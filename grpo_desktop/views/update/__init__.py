"""The Update workspace's widgets: token rows, the push chart, the token detail and the controls."""
