// A dedicated worker that sends what the page hands it over its own WebSocket.
const socket = new WebSocket(`ws://${location.host}/ws`);
onmessage = ({ data }) => socket.send(data);
