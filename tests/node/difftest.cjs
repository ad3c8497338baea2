// attn-walk's tokenizer against the two references, live (ctest: tokenizer_difftest_node):
//   node tests/node/difftest.cjs path/to/attn-walk tests/data/text
// For every corpus file and for generated texts (a fixed seed mixes the scripts and
// whitespace the corpus covers), the ids attn-walk prints for --text-file must be
// tiktoken's; where gpt-3-encoder disagrees with tiktoken, that is reported, not failed
// (gpt-3-encoder's JavaScript \s counts U+FEFF as a space, tiktoken's regex does not).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { referenceIds } = require('./reference_ids.cjs');

const [binary, corpusDir] = process.argv.slice(2);
if (!binary || !corpusDir) {
  console.error('usage: node difftest.cjs ATTN_WALK CORPUS_DIR');
  process.exit(2);
}

// Pieces that stress the pre-tokenizer and BPE; generated texts are random runs of them.
const ALPHABET = [
  'a', 'Z', 'é', 'e\u0301', 'ß', 'ǅ', '中', '文', '的', 'の', 'カ', 'ｶ', '한', 'ع', 'Ω', '0', '7', '٣', '½', 'Ⅻ',
  ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u2003', '\u0085', '\ufeff', '\u200b', '\u200d',
  "'s", "'ll", "'re", "'ve", "'d", "'m", "'t", "'S", "'", '’', '!', '?', '...', '—', '-', ',', '.', '"',
  '😀', '👍🏽', '❤️', '👩‍💻', '🇯🇵', '#️⃣', '\ufe0f', ' the', ' don', 'ing', '<|endoftext|>', '<|', '|>', '𝟘',
];

function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function attnWalkIds(file) {
  const out = execFileSync(binary, ['--text-file', file, '--max-tokens', '100000', '--stage', 'tokens',
                                    '--only', 'token_ids', '--format', 'json'], { maxBuffer: 1 << 28 });
  return JSON.parse(out).token_ids;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-walk-difftest-'));
const cases = fs.readdirSync(corpusDir).filter((f) => f.endsWith('.txt')).sort()
  .map((f) => ({ name: f, text: fs.readFileSync(path.join(corpusDir, f), 'utf8') }));
const random = mulberry32(20240601);
for (let i = 0; i < 120; ++i) {
  let text = 'x';
  const n = 1 + Math.floor(random() * 24);
  for (let k = 0; k < n; ++k) text += ALPHABET[Math.floor(random() * ALPHABET.length)];
  cases.push({ name: `generated ${i}`, text });
}

let failures = 0, gpt3Differs = 0;
for (const c of cases) {
  const file = path.join(tmp, 'text.txt');
  fs.writeFileSync(file, c.text);
  const ref = referenceIds(c.text);
  const got = attnWalkIds(file);
  if (JSON.stringify(got) !== JSON.stringify(ref.tiktoken)) {
    ++failures;
    console.log(`FAIL ${c.name}: ${JSON.stringify(c.text).slice(0, 200)}\n  attn-walk ${JSON.stringify(got)}\n  tiktoken  ${JSON.stringify(ref.tiktoken)}`);
  }
  if (JSON.stringify(ref.gpt_3_encoder) !== JSON.stringify(ref.tiktoken)) {
    ++gpt3Differs;
    const feff = c.text.includes('\ufeff') ? 'with' : 'WITHOUT';
    console.log(`note ${c.name} (${feff} U+FEFF): gpt-3-encoder differs from tiktoken on ${JSON.stringify(c.text).slice(0, 120)}`);
  }
}
fs.rmSync(tmp, { recursive: true });
console.log(`${cases.length} texts: ${cases.length - failures} equal to tiktoken; gpt-3-encoder differs from tiktoken on ${gpt3Differs}`);
process.exit(failures ? 1 : 0);
