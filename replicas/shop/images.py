"""Product images drawn by the store itself: one SVG per product, view and colour, no photographs and no
real brand marks. The drawing follows what the product is (its kind, read from the seed's title: headphones
look like headphones, a T-shirt like a T-shirt), painted in the chosen variant's colour, or in the product's
own hue when it has none. Deterministic: the same product, view and colour always give the same bytes.

Views: 0 the product on white, 1 a closer look (cropped in), 2 the product in its box beside it."""

import colorsys
import zlib

from django.utils.html import escape

# the variant colours the seed uses, as paint
COLOURS = {
    "black": "#26282b",
    "white": "#f3f3f1",
    "navy": "#23345e",
    "sage": "#8fa98a",
    "charcoal": "#4a4d52",
    "coral": "#ee7b62",
    "sand": "#d9c4a0",
}

# Each drawing is SVG in a 300 x 300 box, the product standing on y = 262, painted with {m} (the main
# colour), {l} (a lighter tone), {d} (a darker one) and {i} (ink: the outline colour).
D = {}

D["headphones"] = (
    '<path d="M78 178 C70 60 230 60 222 178" fill="none" stroke="{d}" stroke-width="16" stroke-linecap="round"/>'
    '<path d="M84 150 C84 84 216 84 216 150" fill="none" stroke="{l}" stroke-width="5"/>'
    '<rect x="52" y="140" width="52" height="92" rx="22" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<rect x="196" y="140" width="52" height="92" rx="22" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<rect x="92" y="150" width="18" height="72" rx="9" fill="{d}"/><rect x="190" y="150" width="18" height="72" '
    'rx="9" fill="{d}"/>'
)
D["earbuds"] = (
    '<rect x="80" y="178" width="140" height="76" rx="36" fill="{l}" stroke="{i}" stroke-width="3"/>'
    '<path d="M82 206 H218" stroke="{i}" stroke-width="2"/><circle cx="150" cy="232" r="4" fill="#3bb54a"/>'
    '<circle cx="112" cy="96" r="30" fill="{m}" stroke="{i}" stroke-width="3"/><circle cx="104" cy="90" r="11" '
    'fill="{d}"/><rect x="110" y="110" width="20" height="62" rx="10" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<circle cx="188" cy="96" r="30" fill="{m}" stroke="{i}" stroke-width="3"/><circle cx="196" cy="90" r="11" '
    'fill="{d}"/><rect x="170" y="110" width="20" height="62" rx="10" fill="{m}" stroke="{i}" stroke-width="3"/>'
)
D["speaker"] = (
    '<rect x="88" y="52" width="124" height="206" rx="34" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<circle cx="150" cy="188" r="46" fill="{d}"/><circle cx="150" cy="188" r="30" fill="{l}"/><circle cx="150" '
    'cy="188" r="10" fill="{d}"/><circle cx="150" cy="104" r="22" fill="{d}"/><circle cx="150" cy="104" r="11" '
    'fill="{l}"/><rect x="128" y="64" width="44" height="6" rx="3" fill="{l}"/>'
)
D["charger"] = (
    '<rect x="128" y="46" width="12" height="40" rx="3" fill="#b8bcc2"/><rect x="160" y="46" width="12" height="40" '
    'rx="3" fill="#b8bcc2"/><rect x="96" y="80" width="108" height="124" rx="22" fill="{m}" stroke="{i}" '
    'stroke-width="3"/><rect x="132" y="180" width="36" height="12" rx="6" fill="#2a2a2a"/>'
    '<path d="M150 204 V230 C150 262 70 250 60 226" fill="none" stroke="{d}" stroke-width="9" '
    'stroke-linecap="round"/><path d="M140 118 l14 -14 v12 h10 l-14 16 v-12 z" fill="{l}"/>'
)
D["smart plug"] = (
    '<rect x="86" y="66" width="128" height="170" rx="32" fill="#f4f4f2" stroke="#9aa0a6" stroke-width="3"/>'
    '<rect x="124" y="118" width="10" height="30" rx="4" fill="#55595e"/><rect x="166" y="118" width="10" '
    'height="30" rx="4" fill="#55595e"/><circle cx="150" cy="172" r="8" fill="#55595e"/>'
    '<circle cx="150" cy="212" r="13" fill="{m}"/><circle cx="150" cy="212" r="5" fill="{l}"/>'
    '<circle cx="190" cy="90" r="5" fill="#3bb54a"/>'
)
D["webcam"] = (
    '<path d="M128 160 L112 238 H188 L172 160 Z" fill="{d}"/><rect x="96" y="232" width="108" height="16" rx="8" '
    'fill="{d}"/><rect x="56" y="82" width="188" height="86" rx="43" fill="#2b2d30" stroke="{i}" stroke-width="3"/>'
    '<circle cx="150" cy="125" r="32" fill="{m}"/><circle cx="150" cy="125" r="20" fill="#111"/>'
    '<circle cx="143" cy="118" r="6" fill="#fff" opacity=".8"/><circle cx="212" cy="125" r="5" fill="#3bb54a"/>'
)
D["power bank"] = (
    '<rect x="92" y="44" width="116" height="214" rx="22" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<rect x="132" y="50" width="36" height="8" rx="4" fill="#2a2a2a"/>'
    '<circle cx="126" cy="220" r="5" fill="{l}"/><circle cx="142" cy="220" r="5" fill="{l}"/>'
    '<circle cx="158" cy="220" r="5" fill="{l}"/><circle cx="174" cy="220" r="5" fill="{d}"/>'
    '<path d="M144 110 l18 -26 v22 h12 l-18 30 v-22 z" fill="{l}"/>'
)
_keys = "".join(
    f'<rect x="{46 + c * 21}" y="{122 + r * 21}" width="17" height="17" rx="3" fill="{{l}}"/>'
    for r in range(3)
    for c in range(10)
)
D["keyboard"] = (
    '<rect x="34" y="108" width="232" height="124" rx="12" fill="{d}" stroke="{i}" stroke-width="3"/>'
    + _keys
    + '<rect x="88" y="187" width="124" height="17" rx="3" fill="{l}"/><rect x="46" y="187" width="38" '
    'height="17" rx="3" fill="{m}"/><rect x="216" y="187" width="38" height="17" rx="3" fill="{m}"/>'
)
D["mouse"] = (
    '<path d="M150 58 C212 58 222 120 218 182 C214 240 186 254 150 254 C114 254 86 240 82 182 C78 120 88 58 150 58 Z"'
    ' fill="{m}" stroke="{i}" stroke-width="3"/><path d="M150 58 V134 M84 134 C120 142 180 142 216 134" '
    'fill="none" stroke="{i}" stroke-width="3"/><rect x="142" y="80" width="16" height="32" rx="8" fill="{d}"/>'
)
D["cable"] = (
    '<circle cx="150" cy="160" r="70" fill="none" stroke="{m}" stroke-width="10"/><circle cx="150" cy="160" r="56" '
    'fill="none" stroke="{m}" stroke-width="10"/><circle cx="150" cy="160" r="84" fill="none" stroke="{d}" '
    'stroke-width="10"/>'
    '<rect x="58" y="40" width="44" height="60" rx="6" fill="#2b2d30" transform="rotate(-20 80 70)"/>'
    '<rect x="66" y="22" width="28" height="24" fill="#b8bcc2" transform="rotate(-20 80 70)"/>'
    '<rect x="200" y="200" width="44" height="60" rx="6" fill="#2b2d30" transform="rotate(20 222 230)"/>'
)
D["pour-over"] = (
    '<path d="M96 148 C86 200 92 250 112 258 H188 C208 250 214 200 204 148 Z" fill="#e8f1f4" stroke="{i}" '
    'stroke-width="3"/><path d="M100 200 C110 214 190 214 200 200 L196 244 C190 252 110 252 104 244 Z" '
    'fill="#6b3f22"/><rect x="110" y="136" width="80" height="22" rx="6" fill="{m}"/>'
    '<path d="M80 56 H220 L170 136 H130 Z" fill="#f6f6f4" stroke="{i}" stroke-width="3"/>'
    '<path d="M206 162 C236 170 236 214 206 222" fill="none" stroke="{i}" stroke-width="6"/>'
)
D["knife"] = (
    '<path d="M40 200 L196 122 C214 112 224 124 212 138 L70 228 C52 236 34 222 40 200 Z" fill="#dfe3e6" '
    'stroke="#7d848b" stroke-width="3"/><path d="M196 122 L210 114 L240 168 L226 176 Z" fill="#9aa0a6"/>'
    '<path d="M214 116 L262 88 C276 82 286 98 276 108 L234 166 Z" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<circle cx="244" cy="112" r="4" fill="#ddd"/><circle cx="256" cy="104" r="4" fill="#ddd"/>'
)
D["skillet"] = (
    '<rect x="196" y="140" width="96" height="22" rx="11" fill="{m}" transform="rotate(-12 200 150)"/>'
    '<circle cx="130" cy="164" r="92" fill="#34373b"/><circle cx="130" cy="164" r="76" fill="#26282b"/>'
    '<path d="M80 130 C96 108 124 98 150 100" fill="none" stroke="#55595e" stroke-width="6" stroke-linecap="round"/>'
)
D["towel"] = (
    '<rect x="60" y="196" width="180" height="52" rx="12" fill="{d}"/><rect x="68" y="150" width="164" height="50" '
    'rx="12" fill="{m}"/><rect x="76" y="104" width="148" height="50" rx="12" fill="{l}"/>'
    '<path d="M76 140 H224 M68 186 H232 M60 234 H240" stroke="#fff" stroke-width="3" opacity=".7"/>'
)
D["lamp"] = (
    '<path d="M96 52 H204 L236 146 H64 Z" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<path d="M104 60 H196" stroke="{l}" stroke-width="4"/>'
    '<rect x="144" y="146" width="12" height="90" fill="#9aa0a6"/>'
    '<path d="M92 236 V246 A58 10 0 0 0 208 246 V236 Z" fill="{d}"/>'
    '<ellipse cx="150" cy="236" rx="58" ry="10" fill="{m}" stroke="{i}" stroke-width="2"/>'
)
D["storage bins"] = (
    '<path d="M70 104 H210 L200 232 H80 Z" fill="{d}"/><path d="M96 124 H246 L234 258 H108 Z" fill="{m}" '
    'stroke="{i}" stroke-width="3"/><rect x="150" y="142" width="44" height="14" rx="7" fill="{d}"/>'
    '<path d="M110 170 H232 M108 200 H230" stroke="{l}" stroke-width="3"/>'
)
D["french press"] = (
    '<rect x="146" y="30" width="8" height="50" fill="#9aa0a6"/><circle cx="150" cy="28" r="10" fill="{m}"/>'
    '<rect x="94" y="74" width="112" height="18" rx="6" fill="{m}"/><rect x="100" y="90" width="100" height="160" '
    'rx="8" fill="#e8f1f4" stroke="{i}" stroke-width="3"/><rect x="104" y="150" width="92" height="96" fill="#6b3f22"/>'
    '<path d="M200 112 H226 V222 H200" fill="none" stroke="{m}" stroke-width="12"/><rect x="96" y="248" '
    'width="108" height="10" rx="4" fill="{m}"/>'
)
D["cutting board"] = (
    '<path d="M70 80 H200 C214 80 222 90 222 104 V120 H250 C262 120 266 130 266 140 V176 C266 186 262 196 250 196 '
    'H222 V236 C222 250 214 258 200 258 H70 C56 258 48 250 48 236 V104 C48 90 56 80 70 80 Z" fill="#c9995f" '
    'stroke="#8a6236" stroke-width="3"/><circle cx="246" cy="158" r="10" fill="#fff"/><path d="M66 120 C120 112 '
    '160 130 206 120 M66 170 C120 160 160 180 206 168 M66 218 C120 210 160 228 206 216" fill="none" stroke="#b0834c" '
    'stroke-width="3"/><rect x="48" y="244" width="174" height="10" fill="{m}" opacity=".5"/>'
)
D["blanket"] = (
    '<rect x="50" y="92" width="200" height="150" rx="14" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<path d="M50 132 H250 M50 200 H250 M110 92 V242 M190 92 V242" stroke="{l}" stroke-width="10"/>'
    '<path d="M50 166 H250 M150 92 V242" stroke="{d}" stroke-width="6"/>'
    '<path d="M60 242 v14 M76 242 v14 M92 242 v14 M108 242 v14 M124 242 v14 M140 242 v14 M156 242 v14 M172 242 v14 '
    'M188 242 v14 M204 242 v14 M220 242 v14 M236 242 v14" stroke="{d}" stroke-width="4"/>'
)
_grille = "".join(f'<rect x="112" y="{112 + 12 * n}" width="76" height="5" rx="2" fill="#c6cace"/>' for n in range(10))
D["air purifier"] = (
    '<rect x="96" y="48" width="108" height="210" rx="26" fill="#f2f2f0" stroke="#9aa0a6" stroke-width="3"/>'
    '<circle cx="150" cy="78" r="18" fill="{m}"/><circle cx="150" cy="78" r="8" fill="{l}"/>' + _grille
)
D["shoes"] = (
    '<path d="M40 210 C40 176 66 170 92 150 L120 112 C132 100 150 104 156 118 C172 150 214 158 250 172 '
    'C266 178 268 200 262 214 Z" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<path d="M36 210 H264 C266 226 256 236 240 236 H56 C42 236 34 226 36 210 Z" fill="#f6f6f4" stroke="{i}" '
    'stroke-width="3"/><path d="M128 130 L148 142 M120 144 L142 156 M112 158 L136 170" stroke="{l}" '
    'stroke-width="6" stroke-linecap="round"/><path d="M160 190 C190 176 220 186 246 196" fill="none" stroke="{d}" '
    'stroke-width="6"/>'
)
_TOP = "M110 50 C124 62 176 62 190 50 L250 80 L232 134 L206 122 V256 H94 V122 L68 134 L50 80 Z"
D["t-shirt"] = (
    f'<path d="{_TOP}" fill="{{m}}" stroke="{{i}}" stroke-width="3" stroke-linejoin="round"/>'
    '<path d="M110 50 C124 74 176 74 190 50" fill="none" stroke="{d}" stroke-width="6"/>'
)
D["hoodie"] = (
    '<path d="M110 52 C124 64 176 64 190 52 L246 84 L262 238 L232 242 L212 138 V256 H88 V138 L68 242 L38 238 '
    'L54 84 Z" fill="{m}" stroke="{i}" stroke-width="3" stroke-linejoin="round"/><path d="M104 54 C104 14 196 14 '
    '196 54 C184 90 116 90 104 54 Z" fill="{d}"/><path d="M110 200 H190 L180 236 H120 Z" fill="{d}"/>'
    '<path d="M138 80 V120 M162 80 V120" stroke="{l}" stroke-width="3"/>'
)
D["jacket"] = (
    '<path d="M110 56 C124 68 176 68 190 56 L246 86 L262 240 L232 244 L212 140 V258 H88 V140 L68 244 L38 240 '
    'L54 86 Z" fill="{m}" stroke="{i}" stroke-width="3" stroke-linejoin="round"/><path d="M106 60 C100 16 200 16 '
    '194 60 L176 80 H124 Z" fill="{d}"/><path d="M150 72 V258" stroke="#c6cace" stroke-width="4"/>'
    '<path d="M102 170 L132 164 M198 170 L168 164" stroke="{d}" stroke-width="4"/>'
)
D["vest"] = (
    '<path d="M108 48 C122 60 178 60 192 48 L206 56 C206 100 216 116 232 126 V256 H68 V126 C84 116 94 100 94 56 Z" '
    'fill="{m}" stroke="{i}" stroke-width="3" stroke-linejoin="round"/><path d="M150 70 V256" stroke="#c6cace" '
    'stroke-width="4"/><path d="M108 48 C118 80 182 80 192 48" fill="none" stroke="{d}" stroke-width="8"/>'
    '<path d="M90 190 L122 184 M210 190 L178 184" stroke="{d}" stroke-width="4"/>'
)
D["pants"] = (
    '<path d="M90 40 H210 L230 258 H166 L150 110 L134 258 H70 Z" fill="{m}" stroke="{i}" stroke-width="3" '
    'stroke-linejoin="round"/><rect x="90" y="40" width="120" height="18" fill="{d}"/>'
    '<path d="M100 62 C108 84 124 88 136 84 M200 62 C192 84 176 88 164 84 M150 58 V104" fill="none" stroke="{d}" '
    'stroke-width="3"/>'
)
D["socks"] = (
    '<path d="M86 40 H136 V170 C136 198 150 206 158 218 C170 238 150 262 126 252 L66 222 C46 212 50 190 70 186 '
    'L86 180 Z" fill="{m}" stroke="{i}" stroke-width="3"/><rect x="86" y="40" width="50" height="30" fill="{d}"/>'
    '<path d="M164 56 H214 V180 C214 206 228 214 236 226 C248 246 228 268 204 258 L146 230 C126 220 130 198 150 194 '
    'L164 188 Z" fill="{l}" stroke="{i}" stroke-width="3"/><rect x="164" y="56" width="50" height="30" fill="{d}"/>'
)
D["cap"] = (
    '<path d="M66 186 C62 100 112 72 156 72 C204 72 236 110 234 186 Z" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<path d="M66 186 C110 176 240 176 286 204 C250 226 140 214 66 200 Z" fill="{d}" stroke="{i}" stroke-width="3"/>'
    '<path d="M150 74 V180 M106 88 C118 120 122 160 118 182" fill="none" stroke="{d}" stroke-width="3"/>'
    '<circle cx="152" cy="72" r="7" fill="{d}"/>'
)
D["yoga mat"] = (
    '<rect x="58" y="110" width="184" height="96" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<ellipse cx="242" cy="158" rx="24" ry="48" fill="{l}" stroke="{i}" stroke-width="3"/>'
    '<path d="M242 158 m0 -8 a8 8 0 1 1 -8 8 a16 16 0 1 1 16 -16 a24 24 0 1 1 -24 24" fill="none" stroke="{d}" '
    'stroke-width="3"/><ellipse cx="58" cy="158" rx="24" ry="48" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<path d="M60 236 H250" stroke="{m}" stroke-width="8"/>'
)
D["water bottle"] = (
    '<rect x="128" y="30" width="44" height="30" rx="8" fill="{d}"/><path d="M172 38 C196 38 196 66 172 66" '
    'fill="none" stroke="{d}" stroke-width="6"/><path d="M124 58 H176 C176 80 200 84 200 110 V246 C200 254 194 258 '
    '186 258 H114 C106 258 100 254 100 246 V110 C100 84 124 80 124 58 Z" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<rect x="112" y="116" width="12" height="110" rx="6" fill="{l}" opacity=".7"/>'
)
D["resistance bands"] = (
    '<ellipse cx="150" cy="120" rx="100" ry="44" fill="none" stroke="{m}" stroke-width="16"/>'
    '<ellipse cx="150" cy="178" rx="90" ry="40" fill="none" stroke="{l}" stroke-width="16"/>'
    '<ellipse cx="150" cy="226" rx="80" ry="30" fill="none" stroke="{d}" stroke-width="16"/>'
)
D["lantern"] = (
    '<path d="M112 62 C112 20 188 20 188 62" fill="none" stroke="#55595e" stroke-width="8"/>'
    '<path d="M100 56 H200 L212 86 H88 Z" fill="{m}"/><rect x="104" y="86" width="92" height="130" rx="10" '
    'fill="#fff4c8" stroke="{i}" stroke-width="3"/><circle cx="150" cy="150" r="26" fill="#ffd54a"/>'
    '<path d="M104 120 H196 M104 180 H196" stroke="{d}" stroke-width="4"/><path d="M88 214 H212 L202 252 H98 Z" '
    'fill="{m}"/>'
)
D["trekking poles"] = (
    '<path d="M110 70 L130 256 M180 70 L160 256" stroke="#9aa0a6" stroke-width="8" stroke-linecap="round"/>'
    '<rect x="96" y="40" width="26" height="62" rx="10" fill="{m}" transform="rotate(-6 109 70)"/>'
    '<rect x="168" y="40" width="26" height="62" rx="10" fill="{m}" transform="rotate(6 181 70)"/>'
    '<path d="M98 52 C70 70 76 110 104 104 M192 52 C220 70 214 110 186 104" fill="none" stroke="{d}" '
    'stroke-width="5"/><rect x="116" y="160" width="14" height="12" fill="{d}"/><rect x="160" y="160" width="14" '
    'height="12" fill="{d}"/>'
)
D["jump rope"] = (
    '<path d="M86 94 C40 300 260 300 214 94" fill="none" stroke="{l}" stroke-width="6"/>'
    '<rect x="74" y="40" width="24" height="70" rx="12" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<rect x="202" y="40" width="24" height="70" rx="12" fill="{m}" stroke="{i}" stroke-width="3"/>'
)
D["foam roller"] = (
    '<rect x="64" y="110" width="172" height="100" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<ellipse cx="236" cy="160" rx="26" ry="50" fill="{l}" stroke="{i}" stroke-width="3"/>'
    '<ellipse cx="236" cy="160" rx="10" ry="20" fill="{d}"/><ellipse cx="64" cy="160" rx="26" ry="50" fill="{m}" '
    'stroke="{i}" stroke-width="3"/><path d="M96 114 v92 M128 114 v92 M160 114 v92 M192 114 v92" stroke="{d}" '
    'stroke-width="8" stroke-dasharray="10 8"/>'
)
D["daypack"] = (
    '<path d="M104 60 C104 28 196 28 196 60" fill="none" stroke="{d}" stroke-width="10"/>'
    '<path d="M82 90 C82 60 218 60 218 90 V240 C218 252 208 258 196 258 H104 C92 258 82 252 82 240 Z" fill="{m}" '
    'stroke="{i}" stroke-width="3"/><rect x="104" y="160" width="92" height="78" rx="16" fill="{d}"/>'
    '<path d="M108 172 H192" stroke="{l}" stroke-width="4"/><path d="M96 96 C110 84 190 84 204 96" fill="none" '
    'stroke="{l}" stroke-width="4"/>'
)
D["book"] = (
    '<path d="M214 46 L226 56 V262 L214 254 Z" fill="#ece6d6" stroke="#b7ad95" stroke-width="2"/>'
    '<rect x="80" y="46" width="134" height="208" rx="3" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<rect x="80" y="46" width="12" height="208" fill="{d}"/><rect x="104" y="178" width="98" height="3" '
    'fill="{l}"/>'
)
D["blocks"] = (
    '<rect x="60" y="190" width="90" height="56" rx="4" fill="{m}"/><rect x="150" y="190" width="90" height="56" '
    'rx="4" fill="#3a86d4"/><rect x="104" y="134" width="90" height="56" rx="4" fill="#f2c12e"/>'
    '<rect x="128" y="78" width="44" height="56" rx="4" fill="#3bb54a"/>'
    '<rect x="70" y="178" width="22" height="12" rx="3" fill="{d}"/><rect x="116" y="178" width="22" height="12" '
    'rx="3" fill="{d}"/><rect x="206" y="178" width="22" height="12" rx="3" fill="#2a6cb0"/><rect x="114" y="122" '
    'width="22" height="12" rx="3" fill="#c89d14"/><rect x="160" y="122" width="22" height="12" rx="3" '
    'fill="#c89d14"/><rect x="139" y="66" width="22" height="12" rx="3" fill="#2e8e3a"/>'
)
_piece = (
    "M0 0 H34 C30 -14 50 -14 46 0 H80 V34 C94 30 94 50 80 46 V80 H46 C50 94 30 94 34 80 H0 V46 C-14 50 -14 30 0 34 Z"
)
D["puzzle"] = (
    f'<path d="{_piece}" transform="translate(66 70)" fill="{{m}}" stroke="{{i}}" stroke-width="3"/>'
    f'<path d="{_piece}" transform="translate(156 86) rotate(12)" fill="{{l}}" stroke="{{i}}" stroke-width="3"/>'
    f'<path d="{_piece}" transform="translate(84 160) rotate(-8)" fill="{{d}}" stroke="{{i}}" stroke-width="3"/>'
    '<rect x="176" y="176" width="66" height="66" rx="4" fill="#c9995f" stroke="#8a6236" stroke-width="3"/>'
)
D["remote control car"] = (
    '<path d="M40 196 L56 150 C60 140 70 136 80 136 H118 L146 104 H214 L238 144 C256 148 266 160 266 176 V196 Z" '
    'fill="{m}" stroke="{i}" stroke-width="3"/><path d="M152 112 H208 L226 140 H128 Z" fill="#bfe1f2"/>'
    '<path d="M200 104 L230 40" stroke="#55595e" stroke-width="4"/><circle cx="230" cy="38" r="6" fill="{d}"/>'
    '<circle cx="92" cy="204" r="30" fill="#26282b"/><circle cx="92" cy="204" r="12" fill="#9aa0a6"/>'
    '<circle cx="216" cy="204" r="30" fill="#26282b"/><circle cx="216" cy="204" r="12" fill="#9aa0a6"/>'
)
D["plush bear"] = (
    '<ellipse cx="150" cy="204" rx="66" ry="58" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<ellipse cx="150" cy="210" rx="36" ry="32" fill="{l}"/><circle cx="96" cy="60" r="24" fill="{m}" '
    'stroke="{i}" stroke-width="3"/><circle cx="204" cy="60" r="24" fill="{m}" stroke="{i}" stroke-width="3"/>'
    '<circle cx="96" cy="60" r="11" fill="{l}"/><circle cx="204" cy="60" r="11" fill="{l}"/>'
    '<circle cx="150" cy="104" r="58" fill="{m}" stroke="{i}" stroke-width="3"/><ellipse cx="150" cy="124" rx="26" '
    'ry="20" fill="{l}"/><circle cx="128" cy="94" r="6" fill="#222"/><circle cx="172" cy="94" r="6" fill="#222"/>'
    '<ellipse cx="150" cy="116" rx="9" ry="6" fill="#222"/>'
)
D["marble run"] = (
    '<rect x="70" y="40" width="12" height="220" fill="#c9995f"/><rect x="218" y="40" width="12" height="220" '
    'fill="#c9995f"/><path d="M76 70 L224 100 M224 130 L76 160 M76 190 L224 220" stroke="{m}" stroke-width="12" '
    'stroke-linecap="round"/><circle cx="120" cy="64" r="10" fill="#3a86d4"/><circle cx="190" cy="128" r="10" '
    'fill="#f2c12e"/><circle cx="110" cy="190" r="10" fill="#e2483d"/><rect x="60" y="250" width="180" height="12" '
    'rx="4" fill="{d}"/>'
)
D["card game"] = (
    '<rect x="70" y="70" width="100" height="150" rx="10" fill="#fff" stroke="{i}" stroke-width="3" '
    'transform="rotate(-18 120 220)"/><rect x="100" y="64" width="100" height="150" rx="10" fill="{l}" '
    'stroke="{i}" stroke-width="3"/><rect x="130" y="70" width="100" height="150" rx="10" fill="{m}" stroke="{i}" '
    'stroke-width="3" transform="rotate(18 180 220)"/><circle cx="150" cy="138" r="16" fill="#fff" opacity=".85"/>'
)

# which drawing a product gets: the first keyword its title holds (the seed's nouns), else its department's
KINDS = (
    ("headphones", "headphones"),
    ("earbuds", "earbuds"),
    ("speaker", "speaker"),
    ("charger", "charger"),
    ("smart plug", "smart plug"),
    ("webcam", "webcam"),
    ("power bank", "power bank"),
    ("keyboard", "keyboard"),
    ("mouse", "mouse"),
    ("cable", "cable"),
    ("coffee maker", "pour-over"),
    ("knife", "knife"),
    ("skillet", "skillet"),
    ("towel", "towel"),
    ("lamp", "lamp"),
    ("storage bins", "storage bins"),
    ("french press", "french press"),
    ("cutting board", "cutting board"),
    ("blanket", "blanket"),
    ("air purifier", "air purifier"),
    ("shoes", "shoes"),
    ("t-shirt", "t-shirt"),
    ("jacket", "jacket"),
    ("socks", "socks"),
    ("hoodie", "hoodie"),
    ("pants", "pants"),
    ("cap", "cap"),
    ("vest", "vest"),
    ("yoga mat", "yoga mat"),
    ("water bottle", "water bottle"),
    ("resistance bands", "resistance bands"),
    ("lantern", "lantern"),
    ("trekking poles", "trekking poles"),
    ("jump rope", "jump rope"),
    ("foam roller", "foam roller"),
    ("daypack", "daypack"),
    ("blocks", "blocks"),
    ("puzzle", "puzzle"),
    ("remote control car", "remote control car"),
    ("plush bear", "plush bear"),
    ("marble run", "marble run"),
    ("card game", "card game"),
)
DEPARTMENT_KIND = {
    "electronics": "speaker",
    "home": "lamp",
    "clothing": "t-shirt",
    "sports": "water bottle",
    "books": "book",
    "toys": "blocks",
}
# a book's cover motif, from its title
MOTIFS = (
    (
        "bird",
        '<path d="M120 120 C140 90 170 96 180 110 L204 104 L188 120 C184 146 150 156 124 146 L108 154 Z" '
        'fill="{l}"/><circle cx="172" cy="112" r="3" fill="{d}"/>',
    ),
    (
        "sourdough",
        '<path d="M108 150 C108 104 192 104 192 150 Z" fill="#e0b777"/><path d="M126 120 l12 16 M150 112 '
        'v20 M174 120 l-12 16" stroke="#a8743a" stroke-width="4"/>',
    ),
    (
        "map",
        '<path d="M106 100 L132 90 L168 102 L196 92 V152 L168 162 L132 150 L106 160 Z" fill="{l}"/><path '
        'd="M132 90 V150 M168 102 V162" stroke="{d}" stroke-width="2"/>',
    ),
    (
        "python",
        '<rect x="116" y="96" width="68" height="60" rx="6" fill="#1f2328"/><path d="M126 112 l12 10 l-12 10 '
        'M144 134 h20" fill="none" stroke="#7ee787" stroke-width="4"/>',
    ),
    (
        "garden",
        '<path d="M150 160 V110 M150 130 C124 130 116 108 118 96 C138 96 150 110 150 130 M150 120 C176 120 184 '
        '98 182 86 C162 86 150 100 150 120" fill="{l}" stroke="{l}" stroke-width="3"/>',
    ),
    (
        "sky",
        '<circle cx="150" cy="126" r="30" fill="{l}"/><circle cx="138" cy="118" r="30" fill="{m}"/><path '
        'd="M176 96 l3 8 8 0 -6 5 2 8 -7 -5 -7 5 2 -8 -6 -5 8 0 z" fill="#ffd54a"/>',
    ),
)


def _tones(colour: str, hue: int) -> tuple[str, str, str, str]:
    """(main, light, dark, ink) for a variant colour (one of COLOURS) or, failing that, the product's hue."""
    paint = COLOURS.get(colour.strip().lower())
    if paint:
        r, g, b = (int(paint[n : n + 2], 16) / 255 for n in (1, 3, 5))
        h, lum, s = colorsys.rgb_to_hls(r, g, b)
        h, s = round(h * 360), round(s * 100)
        lum = round(lum * 100)
        light = f"hsl({h},{s}%,{min(lum + 22, 92)}%)" if lum < 85 else "hsl(0,0%,84%)"
        dark = f"hsl({h},{s}%,{max(lum - 16, 8)}%)"
        return paint, light, dark, "#1c1e21" if 25 <= lum < 60 else "#6b7075"
    return f"hsl({hue},55%,46%)", f"hsl({hue},60%,78%)", f"hsl({hue},50%,30%)", "#1c1e21"


def kind_of(product) -> str:
    if product.department == "books":
        return "book"
    title = product.title.lower().replace(product.brand.lower(), "", 1)  # "Lantern House" is a publisher
    for word, kind in KINDS:
        if word in title:
            return kind
    return DEPARTMENT_KIND.get(product.department, "speaker")


def _book(product, m, light, d, i) -> str:
    """A book's cover: its title in white, a motif from the title, the publisher at the foot."""
    title = product.title.lower()
    motif = next((art for word, art in MOTIFS if word in title), MOTIFS[2][1])
    words = product.title.replace(product.brand, "", 1).split(",")[0].split()
    lines, line = [], ""
    for w in words:
        if len(line) + len(w) > 12 and line:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    lines.append(line)
    text = "".join(
        f'<text x="153" y="{196 + 16 * n}" font-family="Liberation Serif, serif" font-size="14" font-weight="700" '
        f'text-anchor="middle" fill="#fff">{escape(t)}</text>'
        for n, t in enumerate(lines[:3])
    )
    cover = D["book"] + motif
    return cover.format(m=m, l=light, d=d, i=i) + text


def _drawing(product, colour: str) -> str:
    m, light, d, i = _tones(colour, product.hue)
    kind = kind_of(product)
    if kind == "book":
        return _book(product, m, light, d, i)
    return D[kind].format(m=m, l=light, d=d, i=i)


def product_svg(product, view: int = 0, colour: str = "") -> str:
    art = _drawing(product, colour)
    if view == 1:  # a closer look
        art = f'<g transform="translate(-75 -70) scale(1.5)">{art}</g>'
        ground = ""
    elif view == 2:  # beside its box, in our own packaging
        seal = zlib.crc32(product.asin.encode()) % 360
        art = (
            '<g transform="translate(20 30) scale(.78)">'
            '<path d="M196 70 H276 L290 84 V262 H210 L196 248 Z" fill="#d8b98a" stroke="#9c7c4e" stroke-width="3"/>'
            '<path d="M196 70 L210 84 H290 M210 84 V262" fill="none" stroke="#9c7c4e" stroke-width="3"/>'
            f'<circle cx="250" cy="140" r="18" fill="hsl({seal},40%,45%)" opacity=".5"/></g>'
            f'<g transform="translate(-6 44) scale(.8)">{art}</g>'
        )
        ground = '<ellipse cx="150" cy="262" rx="120" ry="10" fill="#e3e6e6"/>'
    else:
        ground = '<ellipse cx="150" cy="262" rx="100" ry="10" fill="#e3e6e6"/>'
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 300" width="300" height="300" role="img" '
        f'aria-label="{escape(product.title)}"><rect width="300" height="300" fill="#fff"/>{ground}{art}</svg>'
    )
