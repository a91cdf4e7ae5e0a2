import { render } from "preact";

function App() {
  return <main>whilly</main>;
}

const root = document.getElementById("app");
if (root) render(<App />, root);
