// A small app behind a sign-in wall, the same form on each of its pages: the session is a cookie
// the sign-in sets, which the server may clear (an expired session), and then the wall stands
// where the app was.
document.body.insertAdjacentHTML("afterbegin", `<form id="wall" hidden>
  <label>Email <input id="email" type="email"></label>
  <label>Password <input id="password" type="password"></label>
  <button type="submit">Sign in</button>
</form>`);
const signedIn = () => document.cookie.split("; ").includes("sid=alice");
const render = () => {
  document.getElementById("wall").hidden = signedIn();
  document.getElementById("app").hidden = !signedIn();
};
document.getElementById("wall").addEventListener("submit", async (e) => {
  e.preventDefault();
  await fetch("/api/signin", { method: "POST",
    body: JSON.stringify({ email: document.getElementById("email").value,
                           password: document.getElementById("password").value }) });
  document.cookie = "sid=alice; path=/";
  document.getElementById("result").textContent = "Signed in.";
  render();
});
render();
