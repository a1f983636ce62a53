// A shared worker that sends what a page hands it, by fetch or over its own WebSocket.
const socket = new WebSocket(`ws://${location.host}/ws`);
onconnect = (event) => {
  const port = event.ports[0];
  port.onmessage = ({ data }) => {
    if (data.how === "fetch") fetch("/api/shared", { method: "POST", body: data.text });
    else socket.send(data.text);
  };
};
