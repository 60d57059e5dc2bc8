import { describe, expect, it } from 'vitest';
import { fillPlaceholders, isJsonTemplate, placeholderValues, webhookBody, type NotificationVars } from './templates.js';

const vars: NotificationVars = {
  event: 'job_blocked',
  artistName: 'Sigur Rós',
  trackName: 'Hoppípolla", "admin": true, "x": "',
  albumName: 'Takk…',
  status: 'blocked',
  reason: 'Line one\nLine two \\ end',
  jobId: '42',
  reviewUrl: '',
  flowName: '',
  flowPath: '',
};

describe('notification placeholders', () => {
  it('fills known names and leaves unknown ones as written', () => {
    expect(fillPlaceholders('$artistName – $trackNameX $price $jobId', { artistName: 'A', jobId: '7' })).toBe('A – $trackNameX $price 7');
  });

  it('JSON-escapes values in a JSON template so they cannot add fields', () => {
    const { body, contentType } = webhookBody({ bodyTemplate: '{"text": "$trackName", "why": "$reason", "job": "$jobId"}' }, vars);
    expect(contentType).toBe('application/json');
    expect(JSON.parse(body)).toEqual({ text: vars.trackName, why: vars.reason, job: '42' });
  });

  it('sends a plain-text template as text, and every field as JSON without a template', () => {
    expect(isJsonTemplate('$title')).toBe(false);
    expect(webhookBody({ bodyTemplate: '$artistName: $reason' }, vars)).toEqual({ body: 'Sigur Rós: Line one\nLine two \\ end', contentType: 'text/plain; charset=utf-8' });
    const all = JSON.parse(webhookBody({ bodyTemplate: '' }, vars).body) as Record<string, string>;
    expect(all).toMatchObject({ event: 'job_blocked', jobId: '42', title: `Held for review: Sigur Rós – ${vars.trackName}`, message: vars.reason });
  });

  it('drops the review line of the default message when there is no address', () => {
    expect(placeholderValues(vars).message).toBe('Line one\nLine two \\ end');
    expect(placeholderValues({ ...vars, reviewUrl: 'http://t/review?job=42' }).message).toBe('Line one\nLine two \\ end\n\nReview it: http://t/review?job=42');
  });
});
