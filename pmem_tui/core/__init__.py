"""Domain and service layer. Plain functions and dataclasses: never imports Textual or Rich."""
