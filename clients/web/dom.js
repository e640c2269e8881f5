// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Small DOM helpers shared by the pages.

// An HTML element with attributes (on* keys become listeners) and children.
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'class') element.className = value;
    else element.setAttribute(name, value === true ? '' : value);
  }
  element.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return element;
}

export const $ = (id) => document.getElementById(id);

export function show(element, visible) {
  element.hidden = !visible;
}

// Fills a <select> with options [{value, label, group?}], keeping the value
// chosen before if it is still offered.
export function fillSelect(select, options, selected) {
  const keep = selected ?? select.value;
  const groups = new Map();
  select.replaceChildren();
  for (const option of options) {
    const element = h('option', { value: option.value }, option.label);
    if (!option.group) {
      select.append(element);
      continue;
    }
    if (!groups.has(option.group)) {
      groups.set(option.group, h('optgroup', { label: option.group }));
      select.append(groups.get(option.group));
    }
    groups.get(option.group).append(element);
  }
  if (options.some((o) => o.value === keep)) select.value = keep;
}

// The text of an error for people: the server's message (its code is for
// programs and stays out).
export function errorText(error) {
  return error?.message ?? String(error);
}

// Shows an error above every page; null hides it.
export function pageError(error) {
  const element = $('page-error');
  element.textContent = error ? errorText(error) : '';
  show(element, Boolean(error));
}
