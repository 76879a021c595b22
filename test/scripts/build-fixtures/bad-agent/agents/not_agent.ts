// Shaped like agent options but not returned by defineAgent.
export default { system: "I am not an agent definition" };
