"""The screenshot comparison tells raster noise from a difference an agent could see."""

import io

from PIL import Image, ImageDraw

from tests.pictures import picture_difference


def _png(draw=None, noise=()) -> bytes:
    image = Image.new("RGB", (200, 100), "white")
    ImageDraw.Draw(image).rectangle((20, 20, 120, 60), outline=(30, 30, 30))
    if draw:
        draw(ImageDraw.Draw(image))
    for x, y in noise:  # an antialiased edge pixel one level off
        r, g, b = image.getpixel((x, y))
        image.putpixel((x, y), (max(r - 1, 0), g, b))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def test_the_same_bytes_and_raster_noise_are_the_same_picture():
    assert picture_difference(_png(), _png()) == ""
    assert picture_difference(_png(), _png(noise=[(20, 20 + i) for i in range(15)])) == ""


def test_a_visible_change_is_a_difference():
    moved = _png(lambda d: d.rectangle((22, 20, 122, 60), outline=(30, 30, 30)))
    assert "pixels differ" in picture_difference(_png(), moved)
    text = _png(lambda d: d.text((30, 30), "Refunded", fill=(0, 0, 0)))
    assert "pixels differ" in picture_difference(_png(), text)
    many_faint = _png(noise=[(x, y) for x in range(200) for y in range(0, 100, 10)])  # 2,000 pixels: not noise
    assert "pixels differ" in picture_difference(_png(), many_faint)
