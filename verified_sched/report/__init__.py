"""A verify run's results and every rendering of them: text, json, github, sarif, html, explain."""
