"""What goes in and out: scenarios, lessons, CSVs, exported charts and the text a screen reader
reads.
"""
