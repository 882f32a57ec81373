"""The checkers' data, apart from their logic: the catalogue of mistakes (``_mistakes.py``: every mistake id's
reason, hint and idea) and every notebook's prediction problems (``_predictions_NN.py``).

The data imports the logic's types (``Entry``, ``Prediction``, ``check_number`` ...); the logic reads the data in two
places only: ``_catalogue.py`` the catalogue, ``_problem_book.py`` the prediction problems. This file imports
nothing: loading the catalogue does not load the prediction problems (which import checkers that read it).
"""
