import { defineAgent } from "@standardagents/spec";

// Side b names a prompt that is not in prompts/; side a's stop tool is not offered by its prompt.
export default defineAgent({ sideA: { prompt: "helper", stopTool: "roll_dice" }, sideB: "customr" });
