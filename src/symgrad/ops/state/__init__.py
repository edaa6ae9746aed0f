"""The state family: variables, their reads and writes, row updates, and the unread variable
that ``assign*`` returns.
"""
