"""Product images drawn from the seed: an SVG per product and view, from its hue and shape.
No photographs: the look of a catalogue tile, nothing of any real product."""

from django.utils.html import escape

SHAPES = (
    '<rect x="70" y="60" width="160" height="180" rx="18" fill="{main}"/><rect x="95" y="90" width="110" '
    'height="70" rx="8" fill="{light}"/>',
    '<circle cx="150" cy="150" r="95" fill="{main}"/><circle cx="150" cy="150" r="45" fill="{light}"/>',
    '<path d="M60 230 L150 60 L240 230 Z" fill="{main}"/><rect x="120" y="170" width="60" height="40" fill="{light}"/>',
    '<rect x="55" y="110" width="190" height="90" rx="45" fill="{main}"/><circle cx="105" cy="155" r="25" '
    'fill="{light}"/>',
)


def product_svg(product, view: int = 0) -> str:
    hue = (product.hue + 40 * view) % 360
    main, light = f"hsl({hue},55%,45%)", f"hsl({hue},60%,82%)"
    shape = SHAPES[(product.shape + view) % len(SHAPES)].format(main=main, light=light)
    label = escape(product.brand.upper())
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 300" width="300" height="300" role="img" '
        f'aria-label="{escape(product.title)}"><rect width="300" height="300" fill="#fff"/>'
        f'<ellipse cx="150" cy="262" rx="100" ry="10" fill="#e3e6e6"/>{shape}'
        f'<text x="150" y="288" font-family="Liberation Sans, Arial, sans-serif" font-size="14" text-anchor="middle" '
        f'fill="#565959">{label}</text></svg>'
    )
