from goalbot.cli import entry

if __name__ == "__main__":  # a batch's slot processes import this module too, and must not run it
    entry()
