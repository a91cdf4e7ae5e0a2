import { render } from "preact";
import { App } from "./app.js";
import "./styles/base.css";
import "./styles/plans.css";
import "./styles/table.css";
import "./styles/detail.css";

const root = document.getElementById("app");
if (root) render(<App />, root);
