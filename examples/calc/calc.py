"""A tiny calculator with a bug for cast's offline demo."""


def add(a, b):
    return a - b


def mul(a, b):
    return a * b
