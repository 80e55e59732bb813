error("boom\nsecond line", 2)
