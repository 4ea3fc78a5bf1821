"""The Update workspace: the pre-tokenizer, the stand-in policy, the update step, its settings and
snapshot.
"""
