"""The service's routes, one router per concern: lanes, the manager, the pages."""
