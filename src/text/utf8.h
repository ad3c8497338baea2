// The UTF-8 decoder moved to core/utf8.h (the input checks read it too, and input/ sits below
// text/). TODO issue 32: render/display_width.cpp still includes this name; include
// core/utf8.h there and delete this file.
#pragma once

#include "core/utf8.h"
