/** The two HTML pages a browser sees at /oauth/authorize: the error page and the consent form. */

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)} · GitLab (simulated)</title></head>
<body>
${body}
</body>
</html>
`;
}

/**
 * Doorkeeper's error page: shown instead of a redirect when the client or the redirect URI cannot be
 * trusted, so an attacker-supplied redirect_uri never receives anything.
 */
export function errorPage(error: string, description: string): string {
  return layout(
    "An error has occurred",
    `<main class="oauth-error">
<h1>An error has occurred</h1>
<p class="error-description" data-error="${escapeHtml(error)}">${escapeHtml(description)}</p>
</main>`,
  );
}

interface ConsentPageInput {
  appName: string;
  username: string;
  scopes: string[];
  /** Every authorize parameter, carried through the form so the POST can re-validate it. */
  params: Record<string, string>;
}

export function consentPage(input: ConsentPageInput): string {
  const hidden = Object.entries(input.params)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join("\n");
  const scopes = input.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join("");
  return layout(
    `Authorize ${input.appName}`,
    `<main class="oauth-consent">
<h1>Authorize ${escapeHtml(input.appName)} to use your account?</h1>
<p>Signed in as <strong class="signed-in-user">${escapeHtml(input.username)}</strong>.</p>
<p>This application will be able to:</p>
<ul class="scopes">${scopes}</ul>
<form method="post" action="/oauth/authorize" id="approve">
${hidden}
<input type="hidden" name="username" value="${escapeHtml(input.username)}">
<button type="submit" name="decision" value="approve">Authorize</button>
</form>
<form method="post" action="/oauth/authorize" id="deny">
${hidden}
<input type="hidden" name="_method" value="delete">
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</main>`,
  );
}
