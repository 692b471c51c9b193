// Reads {secret, headers, body} as JSON on stdin and exits 0 when standardwebhooks accepts the
// signature, 1 (printing the error) when it does not.
import { Webhook } from "standardwebhooks";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { secret, headers, body } = JSON.parse(input);
try {
  new Webhook(secret).verify(body, headers);
  console.log("verified");
} catch (err) {
  console.log(String(err));
  process.exit(1);
}
