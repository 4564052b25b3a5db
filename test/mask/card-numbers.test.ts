// The card number rule (mask/cardNumbers.ts) on its own: card numbers of every scheme, written together or in groups,
// masked; what only looks like one (timestamps, wrong check digits, parts of longer numbers, decimals) left as is;
// the scan linear in counted steps. The test numbers are those card networks publish for testing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maskCardNumbers, isCardNumberValue, luhn } from '../../src/mask/cardNumbers';
import type { ScanStats } from '../../src/mask/credentialValues';

const CARDS = [
  '4242424242424242', // Visa
  '4000056655665556', // Visa debit
  '4222222222222', // Visa, 13 digits
  '5555555555554444', // Mastercard
  '2223003122003222', // Mastercard 2-series
  '378282246310005', // Amex
  '36227206271667', // Diners, 14 digits
  '6011111111111117', // Discover
  '3566002020360505', // JCB
  '6200000000000005', // UnionPay
  '6200000000000047', // UnionPay
];

test('the test numbers are valid card numbers (Luhn): the oracle of the cases below', () => {
  for (const card of CARDS) assert.ok(luhn(card), card);
});

test('card numbers are masked wherever they stand, however they are written', () => {
  for (const card of CARDS) {
    const grouped = card.length === 15 ? `${card.slice(0, 4)} ${card.slice(4, 10)} ${card.slice(10)}` : card.replace(/(\d{4})(?=\d)/g, '$1 ');
    for (const written of [card, grouped, grouped.replaceAll(' ', '-'), grouped.replaceAll(' ', '+')]) {
      for (const [text, masked] of [
        [written, '********'],
        [`{"card":{"number":"${written}","cvc":"123"}}`, '{"card":{"number":"********","cvc":"123"}}'],
        [`card[number]=${written}&exp=12/30`, 'card[number]=********&exp=12/30'],
        [`card%5Bnumber%5D=${written}`, 'card%5Bnumber%5D=********'],
        [`pay with ${written}.`, 'pay with ********.'],
        [`"note":"\\n${written}"`, '"note":"\\n********"'],
      ]) {
        assert.equal(maskCardNumbers(text!), masked, text);
      }
    }
    assert.ok(isCardNumberValue(Number(card)), card);
  }
});

test('numbers that only look like cards stay readable', () => {
  const readable = [
    '1733580000000', // a time in ms: starts with 1
    '1733580000000123', // in µs
    '1733580000000123456', // in ns
    '1859468236417318912', // a snowflake id
    '4242424242424241', // wrong check digit
    '42424242424242', // Visa has no 14-digit numbers
    '34242424242424242', // Amex is 15 digits
    '14242424242424242', // part of a longer number
    '42424242424242424242', // 20 digits
    'x4242424242424242', // inside a word
    '4242424242424242x',
    'v1.4242424242424242', // after a dot
    '4242424242424242.5', // decimals
    '1234 4242 4242 4242 4242', // a group of a longer number
    '4242 4242-4242 4242', // two separators
    '4242 42 4242 4242 42', // a short group before others
    '2024-01-15 12:00:00', // dates
    '+1 555-123-4567',
    '7992739871', // Luhn-valid, too short
  ];
  for (const text of readable) assert.equal(maskCardNumbers(text), text, text);
  for (const value of [1733580000000, 4242424242424241, 1.5, -4242424242424242, 42]) assert.equal(isCardNumberValue(value), false, String(value));
});

test('the scan is linear in the text, whatever it holds', () => {
  const n = 200_000;
  for (const text of [
    '4'.repeat(n),
    '4242 '.repeat(n / 5),
    '4242-424242-'.repeat(n / 12),
    `${'4242424242424242 '.repeat(n / 17)}`,
    `${'a4242424242424242'.repeat(n / 17)}`,
    '42424 4242 '.repeat(n / 11),
  ]) {
    const stats: ScanStats = { steps: 0 };
    maskCardNumbers(text, stats);
    assert.ok(stats.steps <= 3 * text.length, `${stats.steps} steps for ${text.length} characters (${text.slice(0, 12)}…)`);
  }
});
