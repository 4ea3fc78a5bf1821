"""A real run's files: verl and TRL rollouts read lazily, their logged advantages checked, chat
turns as text.
"""
