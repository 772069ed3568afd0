// Applies the design tokens' light theme (CSS custom properties shipped as JS strings by
// @atlaskit/tokens). The stylesheet's var() fallbacks hold the same values, so the page
// looks the same before and after this runs, and without JavaScript.
import light from "./vendor/tokens-light.js";
import spacing from "./vendor/tokens-spacing.js";
import typography from "./vendor/tokens-typography.js";

const style = document.createElement("style");
style.dataset.theme = "light spacing typography";
style.textContent = light + spacing + typography;
document.head.prepend(style);
