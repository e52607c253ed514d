"""Seeded scene generators for the tests and the set-up scripts (not installed with the product).

``strand_top`` draws flat top views of Strand unter, ``strand_setups`` 3-D Strand unter set-ups
through a pinhole camera, ``plazing`` Plażing boards, ``mats`` Seashells mats and Sand Castles
boards, ``grid`` grid boards with tokens. Colours and sizes are the tests' own, handed in.
"""
