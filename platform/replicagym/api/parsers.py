"""The API's JSON parser: request bodies go through the platform's JSON intake (replicagym.jsonintake)."""

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from replicagym.jsonintake import MAX_BYTES, JsonIntakeError, json_intake


class IntakeJSONParser(JSONParser):
    """JSON bodies held to the intake's size, depth, string and finite-number limits: a 400 naming the path."""

    def parse(self, stream, media_type=None, parser_context=None):
        # one byte over the limit is enough to know it is over, without reading a huge body into memory
        raw = stream.read(MAX_BYTES + 1) if stream is not None else b""
        try:
            return json_intake(raw)
        except JsonIntakeError as exc:
            raise ParseError({"detail": str(exc), "path": exc.path}) from None
