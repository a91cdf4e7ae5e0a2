/** whilly's version, printed by `whilly --version`. */
export const VERSION = "0.1.0";
