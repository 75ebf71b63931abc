"""The two chats, the STAR way: a customer's (customer.py) and a manager's (manager.py) over one
turn loop (chat.py): text -> predicates -> ASP decision -> text, saved after every turn."""

from .chat import MAX_INPUT, MAX_PHRASE, NOT_ANSWERING, Chat, Turn, said_as_phrase
from .customer import CustomerChat, addressed
from .manager import ManagerChat

__all__ = ["MAX_INPUT", "MAX_PHRASE", "NOT_ANSWERING", "Chat", "CustomerChat", "ManagerChat", "Turn", "addressed",
           "said_as_phrase"]
