// Node module hooks that import `http://` URLs, as a browser does: the Foundry module loads
// the JS client from the sidecar itself, and its test does the same.
export async function resolve(specifier, context, next) {
  if (specifier.startsWith("http://")) return { url: specifier, shortCircuit: true };
  if (context.parentURL?.startsWith("http://") && /^\.{1,2}\//.test(specifier)) {
    return { url: new URL(specifier, context.parentURL).href, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.startsWith("http://")) return next(url, context);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return { format: "module", source: await response.text(), shortCircuit: true };
}
