// card-verify.mjs checks an agent card's signatures (A2A v1.0 §8.4) with libraries other than the
// hub's: `canonicalize` (RFC 8785) for the payload and `jose` for the JWS, keys from the JWKS at the
// card's origin. Run by ../cardsig_test.go. Usage: node card-verify.mjs <card URL>...
// Prints one JSON line per card: {url, signatures, verified, kids, error}.
import canonicalize from "canonicalize";
import { flattenedVerify, createLocalJWKSet, decodeProtectedHeader, base64url } from "jose";

for (const url of process.argv.slice(2)) {
  const out = { url, signatures: 0, verified: 0, kids: [], error: "" };
  try {
    const card = await (await fetch(url)).json();
    const sigs = card.signatures ?? [];
    out.signatures = sigs.length;
    const { signatures, ...unsigned } = card;
    const payload = base64url.encode(canonicalize(unsigned));
    const origin = new URL(url).origin;
    const jwks = await (await fetch(origin + "/.well-known/jwks.json")).json();
    const keys = createLocalJWKSet(jwks);
    for (const sig of sigs) {
      const header = decodeProtectedHeader({ protected: sig.protected });
      out.kids.push(header.kid);
      if (header.jku && new URL(header.jku).origin !== origin) {
        throw new Error(`jku ${header.jku} is on another origin`);
      }
      await flattenedVerify({ protected: sig.protected, payload, signature: sig.signature, header: sig.header }, keys, { algorithms: ["ES256"] });
      out.verified++;
    }
  } catch (e) {
    out.error = String(e && e.message || e);
  }
  console.log(JSON.stringify(out));
}
