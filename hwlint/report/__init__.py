"""The migration report: its data, the words every rendering shares, the text formats and the HTML page."""
