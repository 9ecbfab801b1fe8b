/// The example's one page: plain HTML and a few lines of script, no framework. It asks `/auth/me` who is signed
/// in, calls `/api/userinfo` through the forwarding route, and signs out with `POST /auth/logout` and then at the provider (`logout_url`).
enum ExamplePage {
    static let html = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>SessionKit BFF example</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}
        pre{background:#f4f4f4;padding:.8rem;overflow:auto}button,a.button{font-size:1rem;margin-right:.5rem}</style>
        </head><body>
        <h1>SessionKit back end for front ends</h1>
        <p id="who">Checking who is signed in…</p>
        <p id="actions"></p>
        <h2>GET /api/userinfo (through the proxy)</h2>
        <pre id="api">-</pre>
        <p><small>The browser holds only an HttpOnly session cookie; the tokens stay on the server.</small></p>
        <script>
        const who = document.getElementById('who'), actions = document.getElementById('actions');
        const api = document.getElementById('api');
        async function callAPI() {
          const answer = await fetch('/api/userinfo', {headers: {'Accept': 'application/json', 'X-CSRF': '1'}});
          api.textContent = answer.status + ' ' + JSON.stringify(await answer.json(), null, 2);
        }
        async function signOut() {
          const answer = await fetch('/auth/logout', {method: 'POST', headers: {'X-CSRF': '1'}});
          const done = await answer.json();
          if (done.logout_url) { location.href = done.logout_url; } else { location.reload(); }
        }
        async function show() {
          const answer = await fetch('/auth/me');
          const me = await answer.json();
          if (!me.signed_in) {
            who.textContent = 'Not signed in.';
            actions.innerHTML = '<a class="button" href="/auth/login">Sign in</a>';
            return;
          }
          who.textContent = 'Signed in as ' + (me.name || me.sub) + ' (' + (me.email || 'no email') + ')';
          who.id = 'signed-in';
          actions.innerHTML = '<button id="call">Call the API again</button> <button id="logout">Sign out</button>';
          document.getElementById('call').onclick = callAPI;
          document.getElementById('logout').onclick = signOut;
          await callAPI();
        }
        show();
        </script>
        </body></html>
        """
}
