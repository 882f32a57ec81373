# A package, so that tests/widgets/test_cost.py and tests/test_cost.py can both exist (pytest's default import
# mode needs test files of the same name to live in packages).
