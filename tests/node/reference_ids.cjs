// The token ids of each file given, from both reference tokenizers, as one JSON object:
//   node tests/node/reference_ids.cjs FILE... > ids.json
// {"<file name>": {"tiktoken": [...], "gpt_3_encoder": [...]}, ...}
// tiktoken: @dqbd/tiktoken, tiktoken's own Rust core, encode(text, allowed_special=
// {"<|endoftext|>"}) as the book calls it. gpt-3-encoder knows no special tokens, so the
// text is split at "<|endoftext|>" first and 50256 put in between.
'use strict';
const fs = require('fs');
const path = require('path');
const { get_encoding } = require('@dqbd/tiktoken');
const gpt3 = require('gpt-3-encoder');

const EOT = '<|endoftext|>';
const tiktoken = get_encoding('gpt2');

function referenceIds(text) {
  const viaGpt3 = [];
  text.split(EOT).forEach((part, i) => {
    if (i > 0) viaGpt3.push(50256);
    if (part) viaGpt3.push(...gpt3.encode(part));
  });
  return { tiktoken: Array.from(tiktoken.encode(text, [EOT])), gpt_3_encoder: viaGpt3 };
}

module.exports = { referenceIds };

if (require.main === module) {
  const out = {};
  for (const file of process.argv.slice(2))
    out[path.basename(file)] = referenceIds(fs.readFileSync(file, 'utf8'));
  process.stdout.write(JSON.stringify(out) + '\n');
  tiktoken.free();
}
