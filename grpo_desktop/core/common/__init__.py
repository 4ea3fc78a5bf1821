"""Shared by every workspace: number formatting, accepted numbers, unsafe text, JSON files, atomic
writes, themes and their contrast.
"""
