"""The product page's "About this item" bullets and description, written per kind of product (the
noun its title ends in) and department, and filled from the product's own facts (brand, colours,
sizes, seller's return window). Deterministic: the same product always reads the same."""

from dataclasses import dataclass

# What each kind of product is best at: the first bullet, and the description's opening.
FEATURES = {
    "Wireless Earbuds": "Up to 28 hours of playback with the charging case, and a snug fit that stays put on a run",
    "Bluetooth Speaker": "360-degree sound with deep bass, waterproof to IPX7 for the pool and the beach",
    "USB-C Charger": "65 W fast charging for a laptop, tablet and phone from one compact plug",
    "Noise Cancelling Headphones": "Active noise cancelling that quiets engines and offices, with 30-hour battery",
    "Smart Plug": "Switch lamps and fans from your phone or on a schedule; no hub required",
    "Webcam": "Full HD 1080p video with auto light correction and a built-in privacy shutter",
    "Portable Power Bank": "10,000 mAh in a pocket-sized shell: about two full phone charges",
    "Mechanical Keyboard": "Tactile switches rated for 50 million keystrokes, with per-key backlighting",
    "Wireless Mouse": "Silent clicks and a quiet scroll wheel, 18 months on one AA battery",
    "HDMI Cable": "Carries 4K at 120 Hz and 8K at 60 Hz, with braided nylon that resists kinks",
    "Pour-Over Coffee Maker": "Borosilicate glass carafe and reusable steel filter for a clean, full-bodied cup",
    "Chef's Knife": "8-inch high-carbon steel blade, hand-sharpened to a 15-degree edge",
    "Nonstick Skillet": "PFOA-free nonstick coating that releases eggs without oil, oven safe to 450 °F",
    "Bath Towel Set": "600 GSM cotton that gets softer with every wash; 2 bath, 2 hand, 2 wash towels",
    "Table Lamp": "Dimmable warm light with a linen shade and a USB port in the base",
    "Storage Bins": "Collapsible fabric bins with handles that fit standard cube shelves",
    "French Press": "Double-wall stainless steel keeps coffee hot for an hour; 34 oz",
    "Cutting Board": "End-grain acacia wood that is gentle on knife edges, with a juice groove",
    "Throw Blanket": "Plush fleece, 50 x 60 inches, machine washable without pilling",
    "Air Purifier": "True HEPA filter captures 99.97% of dust, pollen and smoke in rooms up to 220 sq ft",
    "Running Shoes": "Responsive foam midsole and a breathable knit upper for daily miles",
    "Crew Neck T-Shirt": "Pre-shrunk ring-spun cotton with a tag-free neck",
    "Rain Jacket": "Waterproof, breathable shell with sealed seams and a stowaway hood",
    "Wool Socks": "Merino wool blend that keeps feet dry and warm, with a cushioned sole",
    "Hoodie": "Midweight brushed fleece with a lined hood and a kangaroo pocket",
    "Chino Pants": "Stretch cotton twill with a tailored fit that moves with you",
    "Baseball Cap": "Structured six-panel cap with an adjustable strap and a moisture-wicking band",
    "Fleece Vest": "Recycled polyester fleece with zip hand pockets, light enough to layer",
    "Yoga Mat": "6 mm non-slip mat with alignment lines and a carrying strap",
    "Insulated Water Bottle": "Keeps drinks cold for 24 hours or hot for 12; leak-proof lid",
    "Resistance Bands": "Five bands from 10 to 50 lb, with handles, ankle straps and a door anchor",
    "Camping Lantern": "400 lumens with three light modes, rechargeable, runs up to 40 hours",
    "Trekking Poles": "Aluminum poles with cork grips and quick locks, 24 to 53 inches",
    "Jump Rope": "Tangle-free steel cable with ball bearings for smooth, fast turns",
    "Foam Roller": "High-density foam that keeps its shape, 18 inches for back and legs",
    "Daypack": "22-liter pack with a padded laptop sleeve and water-resistant fabric",
    "Field Guide to Birds": "Over 700 species with range maps and side-by-side illustrations",
    "Sourdough Basics": "Step-by-step starter care and 40 tested recipes for home ovens",
    "A History of Maps": "Five centuries of mapmaking told through 120 full-color maps",
    "Beginner's Python": "Learn to program with short exercises and projects you finish in an evening",
    "The Quiet Garden": "Planting plans for small, calm gardens through all four seasons",
    "Night Sky Atlas": "Month-by-month star charts for the northern hemisphere",
    "Building Blocks Set": "500 pieces that work with major brick brands, with a storage tub",
    "Wooden Puzzle": "Chunky, sanded pieces with non-toxic paint for small hands",
    "Remote Control Car": "All-terrain 4WD car, up to 15 mph, with two rechargeable batteries",
    "Plush Bear": "Extra-soft plush with embroidered eyes, surface washable",
    "Marble Run": "120 pieces to build tracks, spirals and drops, with 30 glass marbles",
    "Card Game": "Quick rounds for 2 to 6 players, ages 8 and up",
}

# The other bullets, per department; {brand}, {noun}, {colours}, {sizes} filled from the product.
DEPARTMENT_BULLETS = {
    "electronics": [
        "Works with iPhone, Android phones, Windows and macOS",
        "In the box: the {noun}, a USB-C cable and a quick-start guide",
        "{brand} 1-year limited warranty and support from real people",
    ],
    "home": [
        "Easy care: wipe clean or machine washable as marked",
        "Designed by {brand} for everyday use in small and large homes",
        "Ships in recyclable packaging with no plastic fill",
    ],
    "clothing": [
        "Available in {colours}; sizes {sizes}",
        "Machine wash cold, tumble dry low",
        "Fit: true to size. Check the size chart before you order",
    ],
    "sports": [
        "Built for trail, gym and home workouts",
        "Lightweight and easy to pack",
        "Backed by the {brand} satisfaction guarantee",
    ],
    "books": [
        "Paperback, printed on acid-free paper",
        "Published by {brand}",
        "Makes a thoughtful gift for readers of every level",
    ],
    "toys": [
        "Meets US toy safety standards (ASTM F963)",
        "Encourages open-ended play, problem solving and fine motor skills",
        "From {brand}, makers of toys that last",
    ],
}


@dataclass(frozen=True)
class Copy:
    bullets: list[str]
    description: str


def noun_of(title: str) -> str:
    """The kind of product a seeded title names ("Voltra Wireless Earbuds Pro" -> "Wireless Earbuds")."""
    return max((n for n in FEATURES if n in title), key=len, default="")


def product_copy(product, variants) -> Copy:
    noun = noun_of(product.title)
    colours = sorted({v.colour for v in variants if v.colour})
    sizes = list(dict.fromkeys(v.size for v in variants if v.size))
    facts = {
        "brand": product.brand,
        "noun": noun.lower() or "item",
        "colours": ", ".join(colours) or "one colour",
        "sizes": ", ".join(sizes) or "one size",
    }
    bullets = [FEATURES[noun]] if noun else []
    bullets += [b.format(**facts) for b in DEPARTMENT_BULLETS.get(product.department, [])]
    bullets.append(f"{product.seller.return_window_days}-day returns from {product.seller.name}")
    opening = f"{FEATURES[noun]}." if noun else ""
    return Copy(bullets=bullets, description=f"{opening} {product.description}".strip())
